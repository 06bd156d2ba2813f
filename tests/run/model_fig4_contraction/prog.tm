// Report Fig. 4 (300 400 500 -> 3 4 5).  No qualifiers: all tensors are
// input and output.
var A : [3 4]
var B : [4 5]
var C : [3 5]
C = (A # B).[2 3]
