#include "common/access.h"

#include <stdio.h>

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

char *tid_label(char buf[TID_LABEL_MAX], unsigned tid)
{
	if (tid_is_goroutine(tid))
		snprintf(buf, TID_LABEL_MAX, "g%u", tid - GOROUTINE_TID_BASE + 1);
	else
		snprintf(buf, TID_LABEL_MAX, "%u", tid);
	return buf;
}
