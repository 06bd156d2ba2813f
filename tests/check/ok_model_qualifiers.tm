var input A : [3 4]
var input B : [4 2]
var output C : [3 2]
var input output D : [3 2]
var T : [3 4 4 2]
T = A # B
C = T.[2 3]
D = D + C
