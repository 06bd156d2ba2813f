// DECISIONS 13: no precedence, everything associates to the left.
var input A : [4]
var input B : [4]
var input C : [4]
var input s : []
var input t : []
var input M : [2 3]
var input N : [3 4]
var output d1 : [4]
var output d2 : [4]
var output d3 : [4]
var output d4 : [4]
var output d5 : [4]
var output P : [2 4]
var output Q : [3 3 2 4]
d1 = A - B - C
d2 = A / B / C
d3 = A + B * C
d4 = s * A + B
d5 = s + t * A
P = M # N.[2 3]
Q = M # N ^[1 3]
