#include "common/access.h"

const char *access_kind_name(int kind)
{
	switch (kind) {
	case ACCESS_LOAD: return "load";
	case ACCESS_STORE: return "store";
	case ACCESS_RMW: return "rmw";
	case ACCESS_ATOMIC: return "atomic";
	}
	return "?";
}
