// t-smul (scalar on the left), t-sdiv (scalar on the right), scalars, v/0.
var input s : []
var input t : []
var input z : []
var input A : [2 3]
var output B : [2 3]
var output C : [2 3]
var output D : [2 3]
var output p : []
var output q : []
var output r : []
var output n : []
B = s * A
C = A / t
D = A / z
p = s * t
q = s / t
r = s / z
n = z / z
