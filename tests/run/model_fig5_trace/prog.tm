// Report Fig. 5: trace of a matrix product (300 400 -> 3 4).
var A : [3 4]
var B : [4 3]
var s : []
s = ((A # B).[2 3]).[1 2]
