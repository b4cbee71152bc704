/* fixture_alloc_cxx - calls C++17's aligned operator new and delete and
 * the nothrow forms by their mangled names (what a compiler emits for
 * `new (std::align_val_t(64)) T[n]`, `new T[n]` of an alignas(64) T, or
 * `new (std::nothrow) T`), linked against libstdc++, and prints each
 * address and where main lies, for tests/test_alloc_shim.c: one record
 * per call, naming main and not libstdc++, with the alignment. */
#include <stddef.h>
#include <stdio.h>
#include <time.h>

void *_Znwm(size_t);
void *_ZnwmSt11align_val_t(size_t, size_t);
void *_ZnamSt11align_val_t(size_t, size_t);
void *_ZnwmRKSt9nothrow_t(size_t, const void *);
void *_ZnamRKSt9nothrow_t(size_t, const void *);
void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t, size_t, const void *);
void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t, size_t, const void *);
void _ZdlPv(void *);
void _ZdaPv(void *);
void _ZdlPvSt11align_val_t(void *, size_t);
void _ZdaPvSt11align_val_t(void *, size_t);
void _ZdlPvmSt11align_val_t(void *, size_t, size_t);
void _ZdaPvmSt11align_val_t(void *, size_t, size_t);
extern const char _ZSt7nothrow;     /* std::nothrow */

int main(void)
{
	const void *tag = &_ZSt7nothrow;
	void *plain = _Znwm(24);
	void *one = _ZnwmSt11align_val_t(100, 128);
	void *many = _ZnamSt11align_val_t(192, 64);
	void *nt = _ZnwmRKSt9nothrow_t(40, tag);
	void *nt_many = _ZnamRKSt9nothrow_t(48, tag);
	void *nt_one_al = _ZnwmSt11align_val_tRKSt9nothrow_t(72, 256, tag);
	void *nt_many_al = _ZnamSt11align_val_tRKSt9nothrow_t(80, 64, tag);
	struct timespec ts = { 0, 6000000 };

	printf("main %p\n", (void *)main);
	printf("new %p\nnew_aligned %p\nnew_array_aligned %p\n", plain, one, many);
	printf("new_nothrow %p\nnew_array_nothrow %p\n", nt, nt_many);
	printf("new_aligned_nothrow %p\nnew_array_aligned_nothrow %p\n", nt_one_al,
	       nt_many_al);
	fflush(stdout);
	nanosleep(&ts, NULL);             /* old enough to go out with their deletes */
	_ZdlPv(plain);
	_ZdlPvSt11align_val_t(one, 128);
	_ZdaPvSt11align_val_t(many, 64);
	_ZdlPv(nt);
	_ZdaPv(nt_many);
	_ZdlPvmSt11align_val_t(nt_one_al, 72, 256);
	_ZdaPvmSt11align_val_t(nt_many_al, 80, 64);
	return 0;
}
