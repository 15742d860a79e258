#include <kstub.h>
