// t-contr: d_m = d_n violated (report Fig. 4 with the declarations of Fig. 5 swapped).
var A : [300 400]
var B : [500 300]
var C : [300 300]
C = (A # B).[2 3]
