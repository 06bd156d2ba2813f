// Report Fig. 4: matrix multiplication as contraction.
var A : [300 400]
var B : [400 500]
var C : [300 500]
C = (A # B).[2 3]
