// Report Fig. 6: transposition of dimensions 2 and 4.
var u : [200 300 400 500 600]
var v : [200 500 400 300 600]
v = u ^ [2 4]
