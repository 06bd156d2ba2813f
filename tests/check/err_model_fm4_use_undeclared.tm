var A : [3 4]
var C : [3 4]
C = A + Z
