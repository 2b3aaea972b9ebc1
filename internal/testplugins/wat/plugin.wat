;; A wasmagent plugin written directly in WebAssembly text, with no PDK
;; and no language runtime: the Extism kernel functions and nothing else.
;; It keeps docs/abi.md honest: a plugin is any module that follows it.
;;
;;   describe          a fixed description: one tool, one hook
;;   execute           a text result whose details are the execute input
;;                     itself ({"toolCallId", "name", "args"}), copied byte
;;                     by byte
;;   before_tool_call  blocks every call, with a reason
;;
;; Assembled with wabt's wat2wasm (npm wabt, pinned in package-lock.json):
;; node assemble.mjs plugin.wat plugin.wasm
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))

  (memory (export "memory") 1)
  (data (i32.const 0) "{\"abi\":1,\"name\":\"wat\",\"version\":\"1.0.0\",\"tools\":[{\"name\":\"inspect\",\"description\":\"Returns the input of its execute call as details.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}}],\"hooks\":[\"beforeToolCall\"]}")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"written in WAT\"}],\"details\":")
  (data (i32.const 2048) "{\"block\":true,\"reason\":\"the WAT plugin blocks every call\"}")

  ;; copy stores len bytes of linear memory at ptr into host memory at dst.
  (func $copy (param $dst i64) (param $ptr i32) (param $len i32)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
        (call $store_u8
          (i64.add (local.get $dst) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))

  ;; output sets the output to len bytes of linear memory at ptr.
  (func $output (param $ptr i32) (param $len i32) (result i32)
    (local $off i64)
    (local.set $off (call $alloc (i64.extend_i32_u (local.get $len))))
    (call $copy (local.get $off) (local.get $ptr) (local.get $len))
    (call $output_set (local.get $off) (i64.extend_i32_u (local.get $len)))
    (i32.const 0))

  (func (export "describe") (result i32)
    (call $output (i32.const 0) (i32.const 231)))

  (func (export "before_tool_call") (result i32)
    (call $output (i32.const 2048) (i32.const 58)))

  ;; execute: the prefix, the input, and "}".
  (func (export "execute") (result i32)
    (local $n i64) (local $off i64) (local $i i64)
    (local.set $n (call $input_length))
    (local.set $off (call $alloc (i64.add (local.get $n) (i64.const 64))))
    (call $copy (local.get $off) (i32.const 1024) (i32.const 63))
    (block $done
      (loop $next
        (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
        (call $store_u8
          (i64.add (local.get $off) (i64.add (i64.const 63) (local.get $i)))
          (call $input_load_u8 (local.get $i)))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $next)))
    (call $store_u8
      (i64.add (local.get $off) (i64.add (i64.const 63) (local.get $n)))
      (i32.const 125)) ;; "}"
    (call $output_set (local.get $off) (i64.add (local.get $n) (i64.const 64)))
    (i32.const 0))
)
