var input output A : [3 3]
A = A ^[1 2]
A = (A # A).[2 3]
