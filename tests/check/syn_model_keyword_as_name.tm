// R-LEX-4: keywords are reserved and cannot name a tensor.
var A : [3]
var C : [3]
C = A + input
