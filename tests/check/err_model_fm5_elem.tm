// t-elem, t-smul (scalar only on the left), t-sdiv (scalar only on the right).
var A : [3 4]
var B : [4 3]
var v : [3]
var s : []
var C : [3 4]
C = A + B
C = A - v
C = A * s
C = s / A
C = A / B
