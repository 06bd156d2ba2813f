var A : [3 4]
var B : [4 5]
var C : [3 5]
C = (A # B).[2]
