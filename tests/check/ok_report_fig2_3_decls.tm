// Report Fig. 2 and Fig. 3: a rank-3 tensor declaration and a scalar declaration.
var x : [300 400 500]
var s : []
