// Every operator of the model language, with spaces and commas in types.
var A : [3 4]
var B : [3, 4]
var s : []
var t : []
var C : [3 4]
var D : [4 3]
var P : [3 4 3 4]
C = A + B
C = A - B
C = A * B
C = A / B
C = s * A
C = A / s
s = s * t
s = s / t
s = s + t
s = s - t
P = A # B
D = A ^[1 2]
D = A ^ [2 1]
s = (A # B) . [1 3] . [1 2]
C = (A)
