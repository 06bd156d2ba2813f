var A : [3]
var B : [3]
var C : [3]
C = (A + B]
