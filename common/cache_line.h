/* cache_line.h - the coherency granule of the CPUs this runs on.
 *
 * False sharing happens per coherency unit, which is the L1 data cache
 * line on the CPUs contend targets: 64 bytes on x86-64 and on Arm
 * Neoverse (Graviton, Ampere), 128 on Apple M and POWER.  Linux says it in
 * /sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size; arm64
 * kernels fill that from firmware tables (DT or ACPI PPTT), which many VMs
 * lack, so on AArch64 the CTR_EL0 register (readable from user space) is
 * asked next: its CWG field, the cache writeback granule, else DminLine,
 * the smallest data cache line.  CTR_EL0 can only be read natively: a
 * recording made elsewhere says nothing of it (report -i uses --line-size).
 */
#ifndef CONTEND_CACHE_LINE_H
#define CONTEND_CACHE_LINE_H

/* Bytes, a power of two; 0 if neither source says. */
unsigned host_cache_line_size(void);

/* The coherency_line_size file's value, 0 if unreadable or not a power of
 * two in [16, 1024]: for tests, a path standing for the sysfs file. */
unsigned cache_line_size_from_file(const char *path);

/* From a CTR_EL0 value: CWG (bits 27:24, log2 of 4-byte words), else
 * DminLine (bits 19:16); 0 if neither is set. */
unsigned cache_line_size_from_ctr_el0(unsigned long long ctr);

#endif
