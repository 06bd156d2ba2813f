var A : [3 3]
var s : []
s = A.[1 x]
