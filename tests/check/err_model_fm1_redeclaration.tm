var A : [3]
var B : [3]
var A : [3]
B = B
