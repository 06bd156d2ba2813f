// Transposed matrix multiplication C = A^T B.
var input A : [4 3]
var input B : [4 5]
var output C : [3 5]
C = (A # B).[1 3]
