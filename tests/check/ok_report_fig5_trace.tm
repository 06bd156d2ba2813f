// Report Fig. 5: trace of a matrix product.
var A : [300 400]
var B : [400 300]
var s : []
s = ((A # B).[2 3]).[1 2]
