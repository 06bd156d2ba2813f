// Model language: a matrix chain and a transposed product.
var input A : [9 7]
var input B : [7 8]
var input C : [8 6]
var output D : [9 6]
var output E : [6 9]
D = ((A # B) . [2 3] # C) . [2 3]
E = D ^ [1 2]
