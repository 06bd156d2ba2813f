var input A : [3 3]
var input B : [3 3]
var input v : [3]
var output Q : [3 3]
var output t : []
var output R : [3]
Q = A / B
t = Q.[1 2]
R = (Q # v).[2 3]
