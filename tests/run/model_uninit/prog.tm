// With qualifiers present, T (no qualifier) starts undefined.
var input A : [3]
var T : [3]
var output C : [3]
var output D : [3]
var output U : [2]
C = A + T
D = A * A
T = D
D = T - A
