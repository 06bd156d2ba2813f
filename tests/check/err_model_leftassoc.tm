// Each statement is ill-typed only under the left-associative reading.
var A : [3]
var B : [4 4]
var C : [3]
var s : []
var x : [5]
C = A # B.[1 2]
x = x + s * x
