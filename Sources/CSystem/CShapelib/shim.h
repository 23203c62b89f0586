#include <shapefil.h>
