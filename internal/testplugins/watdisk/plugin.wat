;; A plugin written directly in WebAssembly text that runs a program of
;; WASI file operations on its one directory grant (fd 3), as a hostile
;; plugin filling a disk would, and as no language runtime would: writes
;; past the end, fd_allocate and fd_filestat_set_size to any size, links,
;; renames and removals, in any order. The runtime's disk-cap tests
;; generate the programs.
;;
;;   run  input: records of 32 bytes, one operation each
;;          0  op          see $op below
;;          1  slot        0-7: where an opened descriptor is kept
;;          2  flags       bits 0-3: WASI oflags (creat 1, directory 2,
;;                         excl 4, trunc 8); 16: append; 32: open for
;;                         reading only; 64: do not follow a last link
;;          3  len A       of name A (at most 6 bytes)
;;          4  len B       of name B
;;          8  off         i64: an offset or a size
;;         16  n           u32: a length (writes: at most 65536)
;;         20  name A      6 bytes
;;         26  name B      6 bytes
;;       ops: 0 open A into slot, 1 write n bytes, 2 pwrite n bytes at off,
;;       3 seek to off, 4 fd_allocate off n, 5 fd_filestat_set_size off,
;;       6 mkdir A, 7 symlink B to the target A, 8 hard link B to A,
;;       9 unlink A, 10 rename A to B, 11 close slot, 12 rmdir A,
;;       13 trap, 14 a path of n bytes ("a/a/a…", at 1 MiB, the memory
;;       grown to hold it) passed to the function flags picks (0 path_open
;;       creating, 1 mkdir, 2 symlink to it, 3 symlink at it, 4
;;       path_filestat_get, 5 unlink, 6 rename to it, 7 hard link at it,
;;       8 path_readlink, 9 rmdir, 10 path_filestat_set_times), 15 open A
;;       for reading n times without closing (the errno of the first
;;       failure)
;;       output: one byte per record, the WASI errno its operation
;;       returned (0: done)
;;
;; Assembled with wabt's wat2wasm, the toolchain of ../wat (npm wabt,
;; pinned in its package-lock.json): node ../wat/assemble.mjs plugin.wat plugin.wasm
(module
  (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_pwrite" (func $fd_pwrite (param i32 i32 i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_seek" (func $fd_seek (param i32 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_allocate" (func $fd_allocate (param i32 i64 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_filestat_set_size" (func $fd_filestat_set_size (param i32 i64) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_create_directory" (func $mkdir (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $symlink (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_link" (func $link (param i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_unlink_file" (func $unlink (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_rename" (func $rename (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_remove_directory" (func $rmdir (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_get" (func $path_filestat_get (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_filestat_set_times" (func $path_filestat_set_times (param i32 i32 i32 i32 i64 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_readlink" (func $path_readlink (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))

  ;; 0: an iovec; 16: results; 512: the descriptors of slots 0-7 (-1:
  ;; none); 65536: the input; 131072: 64 KiB written by writes; 196608:
  ;; the errnos.
  (memory (export "memory") 5)
  (data (i32.const 512) "\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff")

  (func $slot (param $r i32) (result i32)
    (i32.add (i32.const 512) (i32.shl (i32.and (i32.load8_u offset=1 (local.get $r)) (i32.const 7)) (i32.const 2))))
  (func $fd (param $r i32) (result i32) (i32.load (call $slot (local.get $r))))
  (func $flags (param $r i32) (result i32) (i32.load8_u offset=2 (local.get $r)))
  (func $a (param $r i32) (result i32) (i32.add (local.get $r) (i32.const 20)))
  (func $alen (param $r i32) (result i32) (i32.load8_u offset=3 (local.get $r)))
  (func $b (param $r i32) (result i32) (i32.add (local.get $r) (i32.const 26)))
  (func $blen (param $r i32) (result i32) (i32.load8_u offset=4 (local.get $r)))
  (func $off (param $r i32) (result i64) (i64.load offset=8 (local.get $r)))
  (func $n (param $r i32) (result i32) (i32.load offset=16 (local.get $r)))

  ;; the iovec: n bytes of the buffer
  (func $iovec (param $r i32) (result i32)
    (i32.store (i32.const 0) (i32.const 131072))
    (i32.store (i32.const 4) (i32.load offset=16 (local.get $r)))
    (i32.const 0))

  (func $open (param $r i32) (result i32)
    (local $e i32) (local $f i32)
    (local.set $f (call $flags (local.get $r)))
    (local.set $e (call $path_open (i32.const 3)
      (select (i32.const 0) (i32.const 1) (i32.and (local.get $f) (i32.const 64)))
      (call $a (local.get $r)) (call $alen (local.get $r))
      (i32.and (local.get $f) (i32.const 15))
      (select (i64.const 2) (i64.const -1) (i32.and (local.get $f) (i32.const 32)))
      (i64.const -1)
      (i32.shr_u (i32.and (local.get $f) (i32.const 16)) (i32.const 4))
      (i32.const 16)))
    (if (i32.eqz (local.get $e))
      (then (i32.store (call $slot (local.get $r)) (i32.load (i32.const 16)))))
    (local.get $e))

  (func $longpath (param $r i32) (result i32)
    (local $n i32) (local $i i32) (local $pages i32)
    (local.set $n (call $n (local.get $r)))
    (local.set $pages (i32.sub
      (i32.shr_u (i32.add (i32.add (i32.const 1048576) (local.get $n)) (i32.const 65535)) (i32.const 16))
      (memory.size)))
    (if (i32.gt_s (local.get $pages) (i32.const 0))
      (then (if (i32.eq (memory.grow (local.get $pages)) (i32.const -1)) (then (return (i32.const 255))))))
    (memory.fill (i32.const 1048576) (i32.const 97) (local.get $n))
    (local.set $i (i32.const 1))
    (block $filled
      (loop $slash
        (br_if $filled (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (i32.const 1048576) (local.get $i)) (i32.const 47))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $slash)))
    (block $times (block $rmdir (block $readlink (block $link (block $rename (block $unlink (block $stat
    (block $symat (block $symto (block $mkdir (block $open
      (br_table $open $mkdir $symto $symat $stat $unlink $rename $link $readlink $rmdir $times (call $flags (local.get $r))))
      (return (call $path_open (i32.const 3) (i32.const 1) (i32.const 1048576) (local.get $n) (i32.const 1) (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 16))))
      (return (call $mkdir (i32.const 3) (i32.const 1048576) (local.get $n))))
      (return (call $symlink (i32.const 1048576) (local.get $n) (i32.const 3) (call $b (local.get $r)) (call $blen (local.get $r)))))
      (return (call $symlink (call $a (local.get $r)) (call $alen (local.get $r)) (i32.const 3) (i32.const 1048576) (local.get $n))))
      (return (call $path_filestat_get (i32.const 3) (i32.const 1) (i32.const 1048576) (local.get $n) (i32.const 64))))
      (return (call $unlink (i32.const 3) (i32.const 1048576) (local.get $n))))
      (return (call $rename (i32.const 3) (call $a (local.get $r)) (call $alen (local.get $r)) (i32.const 3) (i32.const 1048576) (local.get $n))))
      (return (call $link (i32.const 3) (i32.const 0) (call $a (local.get $r)) (call $alen (local.get $r)) (i32.const 3) (i32.const 1048576) (local.get $n))))
      (return (call $path_readlink (i32.const 3) (i32.const 1048576) (local.get $n) (i32.const 256) (i32.const 64) (i32.const 16))))
      (return (call $rmdir (i32.const 3) (i32.const 1048576) (local.get $n))))
    (call $path_filestat_set_times (i32.const 3) (i32.const 1) (i32.const 1048576) (local.get $n) (i64.const 0) (i64.const 0) (i32.const 0)))

  (func $openmany (param $r i32) (result i32)
    (local $k i32) (local $e i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $k) (call $n (local.get $r))))
        (local.set $e (call $path_open (i32.const 3) (i32.const 1) (call $a (local.get $r)) (call $alen (local.get $r))
          (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 16)))
        (br_if $done (local.get $e))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $next)))
    (local.get $e))

  ;; close the slot's descriptor and forget it
  (func $close (param $r i32) (result i32)
    (local $fd i32)
    (local.set $fd (call $fd (local.get $r)))
    (i32.store (call $slot (local.get $r)) (i32.const -1))
    (call $fd_close (local.get $fd)))

  (func $op (param $r i32) (result i32)
    (block $trap (block $openmany (block $longpath (block $rmdir (block $close (block $rename (block $unlink (block $link (block $symlink
    (block $mkdir (block $setsize (block $allocate (block $seek (block $pwrite (block $write (block $open
      (br_table $open $write $pwrite $seek $allocate $setsize $mkdir $symlink $link $unlink $rename $close $rmdir $trap $longpath $openmany $trap
        (i32.load8_u (local.get $r))))
      (return (call $open (local.get $r))))
      (return (call $fd_write (call $fd (local.get $r)) (call $iovec (local.get $r)) (i32.const 1) (i32.const 16))))
      (return (call $fd_pwrite (call $fd (local.get $r)) (call $iovec (local.get $r)) (i32.const 1) (call $off (local.get $r)) (i32.const 16))))
      (return (call $fd_seek (call $fd (local.get $r)) (call $off (local.get $r)) (i32.const 0) (i32.const 16))))
      (return (call $fd_allocate (call $fd (local.get $r)) (call $off (local.get $r)) (i64.extend_i32_u (call $n (local.get $r))))))
      (return (call $fd_filestat_set_size (call $fd (local.get $r)) (call $off (local.get $r)))))
      (return (call $mkdir (i32.const 3) (call $a (local.get $r)) (call $alen (local.get $r)))))
      ;; a link at B to the target A
      (return (call $symlink (call $a (local.get $r)) (call $alen (local.get $r)) (i32.const 3) (call $b (local.get $r)) (call $blen (local.get $r)))))
      ;; a hard link at B to A
      (return (call $link (i32.const 3) (i32.const 0) (call $a (local.get $r)) (call $alen (local.get $r)) (i32.const 3) (call $b (local.get $r)) (call $blen (local.get $r)))))
      (return (call $unlink (i32.const 3) (call $a (local.get $r)) (call $alen (local.get $r)))))
      (return (call $rename (i32.const 3) (call $a (local.get $r)) (call $alen (local.get $r)) (i32.const 3) (call $b (local.get $r)) (call $blen (local.get $r)))))
      (return (call $close (local.get $r))))
      (return (call $rmdir (i32.const 3) (call $a (local.get $r)) (call $alen (local.get $r)))))
      (return (call $longpath (local.get $r))))
      (return (call $openmany (local.get $r))))
    ;; 16 and over: a trap, to end the call as a failure
    (unreachable))

  (func (export "run") (result i32)
    (local $len i32) (local $i i32) (local $k i32) (local $out i64)
    (local.set $len (i32.wrap_i64 (call $input_length)))
    (block $copied
      (loop $copy
        (br_if $copied (i32.ge_u (i32.add (local.get $i) (i32.const 8)) (i32.add (local.get $len) (i32.const 1))))
        (i64.store (i32.add (i32.const 65536) (local.get $i)) (call $input_load_u64 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $copy)))
    (local.set $len (i32.shr_u (local.get $len) (i32.const 5)))
    (local.set $i (i32.const 0))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (i32.store8 (i32.add (i32.const 196608) (local.get $i))
          (call $op (i32.add (i32.const 65536) (i32.shl (local.get $i) (i32.const 5)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.set $out (call $alloc (i64.extend_i32_u (local.get $len))))
    (local.set $i (i32.const 0))
    (block $stored
      (loop $store
        (br_if $stored (i32.ge_u (local.get $i) (local.get $len)))
        (call $store_u8 (i64.add (local.get $out) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (i32.const 196608) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $store)))
    (call $output_set (local.get $out) (i64.extend_i32_u (local.get $len)))
    (i32.const 0))
)
