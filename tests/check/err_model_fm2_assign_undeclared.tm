var A : [3]
X = A
