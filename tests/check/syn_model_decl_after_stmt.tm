var A : [3]
var C : [3]
C = A
var D : [3]
