// Different operators chained without parentheses: warning (DECISIONS 13).
var A : [3]
var B : [3]
var C : [3]
C = A + B * C
C = A - B - C
C = (A + B) * C
C = A + B - C
