// R-AN-2 in the model language.
var input A : [3]
var T : [3]
var output C : [3]
C = A + T
T = A
C = C + T
