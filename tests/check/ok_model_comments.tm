// comment
var A : [3]  // trailing comment
var B : [3]
var C : [3 3]
C = A # B // '#' is the outer product, '//' starts the comment
// var Z : [1]
C = C ^[1 2] //last line without newline