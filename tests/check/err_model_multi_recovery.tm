var A : [3 4]
var B : [4 3]
var C : [3 3]
var s : []
C = A + B
C = (A # B).[2 3]
C = Z
Y = C
C = A
C = C.[1 1]
C = C * s
s = C.[1 2]
