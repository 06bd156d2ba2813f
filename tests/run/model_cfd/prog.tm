// (A (x) A (x) A) u for E = 2 elements, n = 3, in the model language.
var input A : [3 3]
var input u : [2 3 3 3]
var output v : [3 3 3 2]
v = (A # (A # A) # u).[2 8].[3 7].[4 6]
