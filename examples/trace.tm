// The trace of a matrix product, report Fig. 5.
var input A : [30 40]
var input B : [40 30]
var output s : []
s = ((A # B) . [2 3]) . [1 2]
