// Matrix multiplication in the model language, report Fig. 4.
var input A : [30 40]
var input B : [40 50]
var output C : [30 50]
C = (A # B) . [2 3]
