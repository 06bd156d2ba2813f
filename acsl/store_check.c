/* store_check.c - lets WP prove src/storeprim.h: including the header makes
 * its static inline functions, lemmas and ghost lemma functions part of this
 * translation unit, and WP proves every function defined in it. */
#include "storeprim.h"
