var A : [3]
var C : [3]
C = A + + A
C = A * Z
C = (A + A
C = A
