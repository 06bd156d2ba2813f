var A : [3 0]
