// DECISIONS 13: no precedence, left-associative, postfix included.
// Each statement is well-typed only under the left-associative reading,
// and chains different operators, so a warning is expected.
var A : [2 3]
var B : [3 4]
var C : [2 4]
var s : []
var t : []
var x : [5]
var y : [5]
var a : [2]
var b : [3]
var D : [3 2]
C = A # B.[2 3]
y = s + t * x
D = a # b ^[1 2]
