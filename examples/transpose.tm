// Transposition, report Fig. 6 (extents scaled down from 200..600).
var input u : [2 3 4 5 6]
var output v : [2 5 4 3 6]
v = u ^ [2 4]
