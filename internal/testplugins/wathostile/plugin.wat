;; A hostile plugin written directly in WebAssembly text: it plays games
;; with WASI descriptors and paths that a language runtime would never
;; play, to check that grants hold at the WASI layer itself. It expects
;; two directory grants, in this order: a read-only one (fd 3) and a
;; read-write one (fd 4), with a file "doc" in the read-only one.
;;
;;   escape  tries every way out of or into the read-only grant it knows;
;;           its output is one byte per attempt: the WASI errno (0 means
;;           the attempt succeeded, which the host must never allow)
;;   writes  fd_write, fd_read and the prestat functions on descriptors
;;           0 to 11 with wild pointers and lengths; returns 0
;;
;; Assembled with wabt's wat2wasm, the toolchain of ../wat (npm wabt,
;; pinned in its package-lock.json): node ../wat/assemble.mjs plugin.wat plugin.wasm
(module
  (import "wasi_snapshot_preview1" "path_open" (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_create_directory" (func $mkdir (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_unlink_file" (func $unlink (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_rename" (func $rename (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_link" (func $link (param i32 i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_symlink" (func $symlink (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_renumber" (func $fd_renumber (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $fd_prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_dir_name" (func $fd_prestat_dir_name (param i32 i32 i32) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))

  (memory (export "memory") 1)
  ;; an iovec at 0: 6 bytes at 100
  (data (i32.const 0) "\64\00\00\00\06\00\00\00")
  (data (i32.const 100) "hello\n")
  (data (i32.const 200) "../secret")   ;; 9
  (data (i32.const 220) "doc")         ;; 3
  (data (i32.const 240) "newdir")      ;; 6
  (data (i32.const 260) "/etc/passwd") ;; 11
  (data (i32.const 280) "up")          ;; 2
  (data (i32.const 300) "../ro/doc")   ;; 9

  ;; errnos are kept at 1024 + n; $n counts the attempts
  (global $n (mut i32) (i32.const 0))
  (func $try (param $errno i32)
    (i32.store8 (i32.add (i32.const 1024) (global.get $n)) (local.get $errno))
    (global.set $n (i32.add (global.get $n) (i32.const 1))))

  (func (export "escape") (result i32)
    (local $off i64) (local $i i32)
    ;; open ../secret from the read-only grant, every flag and right
    (call $try (call $path_open (i32.const 3) (i32.const 1) (i32.const 200) (i32.const 9) (i32.const 0) (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 64)))
    ;; create and truncate doc in the read-only grant
    (call $try (call $path_open (i32.const 3) (i32.const 0) (i32.const 220) (i32.const 3) (i32.const 9) (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 64)))
    ;; open doc for appending, with every fd flag
    (call $try (call $path_open (i32.const 3) (i32.const 0) (i32.const 220) (i32.const 3) (i32.const 0) (i64.const -1) (i64.const -1) (i32.const 31) (i32.const 64)))
    (call $try (call $mkdir (i32.const 3) (i32.const 240) (i32.const 6)))
    (call $try (call $unlink (i32.const 3) (i32.const 220) (i32.const 3)))
    ;; move doc out of the read-only grant into the read-write one
    (call $try (call $rename (i32.const 3) (i32.const 220) (i32.const 3) (i32.const 4) (i32.const 220) (i32.const 3)))
    ;; a hard link to doc from the read-write grant
    (call $try (call $link (i32.const 3) (i32.const 0) (i32.const 220) (i32.const 3) (i32.const 4) (i32.const 280) (i32.const 2)))
    ;; symbolic links out of the read-write grant
    (call $try (call $symlink (i32.const 200) (i32.const 9) (i32.const 4) (i32.const 280) (i32.const 2)))
    (call $try (call $symlink (i32.const 260) (i32.const 11) (i32.const 4) (i32.const 280) (i32.const 2)))
    ;; from the read-write grant to its sibling, the read-only one
    (call $try (call $path_open (i32.const 4) (i32.const 1) (i32.const 300) (i32.const 9) (i32.const 8) (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 64)))
    ;; the read-only grant renumbered over the read-write one: still
    ;; read-only
    (drop (call $fd_renumber (i32.const 3) (i32.const 4)))
    (call $try (call $unlink (i32.const 4) (i32.const 220) (i32.const 3)))
    (call $try (call $path_open (i32.const 4) (i32.const 0) (i32.const 220) (i32.const 3) (i32.const 8) (i64.const -1) (i64.const -1) (i32.const 0) (i32.const 64)))
    ;; the errnos are the output
    (local.set $off (call $alloc (i64.extend_i32_u (global.get $n))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (global.get $n)))
        (call $store_u8 (i64.add (local.get $off) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (i32.const 1024) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (call $output_set (local.get $off) (i64.extend_i32_u (global.get $n)))
    (i32.const 0))

  (func (export "writes") (result i32)
    (local $fd i32)
    (loop $next
      (drop (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 16)))
      (drop (call $fd_write (local.get $fd) (i32.const 65535) (i32.const 1000) (i32.const 65534)))
      (drop (call $fd_write (local.get $fd) (i32.const -1) (i32.const -1) (i32.const -1)))
      (drop (call $fd_read (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 16)))
      (drop (call $fd_read (local.get $fd) (i32.const -8) (i32.const 1) (i32.const 16)))
      (drop (call $fd_prestat_get (local.get $fd) (i32.const 65535)))
      (drop (call $fd_prestat_dir_name (local.get $fd) (i32.const 65530) (i32.const 100)))
      (local.set $fd (i32.add (local.get $fd) (i32.const 1)))
      (br_if $next (i32.lt_u (local.get $fd) (i32.const 12))))
    (i32.const 0))
)
