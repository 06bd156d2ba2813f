var A : [3 3]
var B : [3 4]
var C : [3 3]
C = (A.[1 1]) + (B ^[1 5])
