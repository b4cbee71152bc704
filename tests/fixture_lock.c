/* fixture_lock.c - a mutex beside the data it guards, for test_report.
 *
 * Opened, never run: its DWARF gives the report a pthread_mutex_t inside
 * a struct.  The mutex starts 32 bytes into a 64-byte line, so its 40
 * bytes straddle two lines, as in a struct placed without care.
 */
#include <pthread.h>

struct guarded {
	pthread_mutex_t lock;   /*  0 40 */
	long done;              /* 40  8 */
	long checksum;          /* 48  8 */
};

struct {
	char before[32];
	struct guarded g;       /* 32 56 */
} _Alignas(64) locked;

int main(int argc, char **argv)
{
	(void)argv;
	pthread_mutex_lock(&locked.g.lock);
	locked.g.done += argc;
	locked.g.checksum ^= argc;
	pthread_mutex_unlock(&locked.g.lock);
	return locked.g.done == 0;
}
