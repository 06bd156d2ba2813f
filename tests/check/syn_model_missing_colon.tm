var A : [3]
var B [3]
