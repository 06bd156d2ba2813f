// (A (x) A (x) A) u on E = 2 elements of n = 3, as contractions of an outer product.
var input A : [3 3]
var input u : [2 3 3 3]
var output v : [3 3 3 2]
v = (A # (A # A) # u).[2 8].[3 7].[4 6]
