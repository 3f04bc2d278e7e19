//! Where the module meets Redis's C API without a safe wrapper in `redis-module`: the data
//! type's callbacks (RDB load and save, AOF rewrite, memory usage, copy, free) and the
//! command information (arity and key specs) that Redis 7.0 takes through
//! `RedisModule_SetCommandInfo`.
//!
//! `unsafe` is denied in the workspace and allowed in this file only: Redis calls these
//! functions through C function pointers with raw pointers it owns (`unsafe extern "C"` is
//! the only way to be called back), `RedisModule_EmitAOF` is a C variadic function, and
//! `redis-module` 2.0.8 registers command information only through an API that Redis 7.0
//! lacks (`RedisModule_SetCommandACLCategories`, 7.2), so the two calls that set it are made
//! here. Each `unsafe` block says what it relies on.
#![allow(unsafe_code)]

use crate::commands::{CommandInfo, Keys, TABLE};
use crate::stored::{self, Stored, CHUNK_BYTES};
use redis_module::commands::{
    get_redis_key_spec, BeginSearch, FindKeys, KeySpec, KeySpecFlags as F,
};
use redis_module::native_types::RedisType;
use redis_module::{raw, Context, ContextFlags};
use std::ffi::{c_char, c_int, c_longlong, c_void, CString};
use std::ptr;

/// The module's one data type: every filter kind, as `TYPE key` reports it (`amqfilter`).
pub static AMQ_TYPE: RedisType = RedisType::new(
    "amqfilter",
    stored::RDB_VERSION,
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(rdb_load),
        rdb_save: Some(rdb_save),
        aof_rewrite: Some(aof_rewrite),
        mem_usage: Some(mem_usage),
        digest: None,
        free: Some(free),
        aux_load: None,
        aux_save: None,
        aux_save_triggers: 0,
        free_effort: None,
        unlink: None,
        copy: Some(copy),
        defrag: None,
        mem_usage2: None,
        free_effort2: None,
        unlink2: None,
        copy2: None,
        aux_save2: None,
    },
);

/// Loads a value: one string buffer ([`stored::rdb_decode`]). Bytes that do not decode give
/// NULL, which Redis reports as a corrupt RDB (or a `RESTORE` error) instead of a crash. A
/// client's `RESTORE` of a filter over `amq.max-filter-bytes` gives NULL too (Redis answers
/// "Bad data format"; the log says why); the RDB at start, a full sync and a replica's
/// commands are not held to this server's limit ([`ops::check_size`](crate::ops::check_size)).
unsafe extern "C" fn rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    let Ok(buffer) = raw::load_string_buffer(rdb) else {
        return ptr::null_mut();
    };
    let value = match std::panic::catch_unwind(|| stored::rdb_decode(encver, buffer.as_ref())) {
        Ok(Ok(value)) => value,
        _ => return ptr::null_mut(),
    };
    // SAFETY: the API table is filled before any callback runs; `rdb` is the IO Redis
    // passed, and the context it gives lives as long as the IO.
    let ctx = unsafe { raw::RedisModule_GetContextFromIO.map(|get| get(rdb)) };
    if let Some(why) = ctx.and_then(|ctx| over_limit(&Context::new(ctx), &value)) {
        redis_module::logging::log_io_error(
            rdb,
            redis_module::logging::RedisLogLevel::Warning,
            &format!("amq: RESTORE refused: {why}"),
        );
        return ptr::null_mut();
    }
    Box::into_raw(Box::new(value)).cast::<c_void>()
}

/// Why a value that a client's command brings in (`RESTORE`, `COPY`) is refused: a filter,
/// or a load in progress, larger than `amq.max-filter-bytes`. `None` while the server loads
/// its data or is a replica (its primary held the value to its own limit).
fn over_limit(ctx: &Context, value: &Stored) -> Option<String> {
    let bytes = value.limited_bytes();
    let limit = crate::ops::limit();
    if bytes <= limit {
        return None;
    }
    let flags = ctx.get_flags();
    if flags.intersects(ContextFlags::LOADING | ContextFlags::SLAVE | ContextFlags::REPLICATED) {
        return None;
    }
    Some(format!(
        "the filter would take {bytes} bytes, over amq.max-filter-bytes ({limit})"
    ))
}

/// Saves a value as one string buffer ([`stored::rdb_encode`]).
unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes back the pointer `rdb_load` or `RedisModule_ModuleTypeSetValue`
    // got from `Box::<Stored>::into_raw`, and no command runs while it saves.
    let value = unsafe { &*value.cast::<Stored>() };
    raw::save_slice(rdb, &stored::rdb_encode(value));
}

/// Rewrites a value into the AOF as `AMQ.LOADCHUNK` commands: the dump header, then the
/// `.amq` bytes in chunks of at most 16 MiB (a load in progress is written as it stands).
unsafe extern "C" fn aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: as in `rdb_save`.
    let value = unsafe { &*value.cast::<Stored>() };
    let (header, amq) = match &value.state {
        stored::State::Ready(f) => {
            let amq = f.to_bytes();
            (stored::dump_header(f.kind(), amq.len() as u64), amq)
        }
        stored::State::Loading { kind, total, bytes } => {
            (stored::dump_header(*kind, *total), bytes.clone())
        }
    };
    // SAFETY: Redis fills the API table before any callback runs; `EmitAOF` is read by value.
    let Some(emit) = (unsafe { raw::RedisModule_EmitAOF }) else {
        return;
    };
    let (name, fmt) = (c"AMQ.LOADCHUNK", c"slb");
    // SAFETY: the "slb" format takes a RedisModuleString*, a long long and a buffer as a
    // char pointer and a size_t; every pointer outlives the call.
    unsafe {
        emit(
            aof,
            name.as_ptr(),
            fmt.as_ptr(),
            key,
            1 as c_longlong,
            header.as_ptr().cast::<c_char>(),
            header.len(),
        );
    }
    let mut it: i64 = 1;
    for chunk in amq.chunks(CHUNK_BYTES) {
        it += chunk.len() as i64;
        // SAFETY: as above.
        unsafe {
            emit(
                aof,
                name.as_ptr(),
                fmt.as_ptr(),
                key,
                it as c_longlong,
                chunk.as_ptr().cast::<c_char>(),
                chunk.len(),
            );
        }
    }
}

/// `MEMORY USAGE`: the bytes the value takes ([`Stored::memory`]).
unsafe extern "C" fn mem_usage(value: *const c_void) -> usize {
    // SAFETY: as in `rdb_save`.
    let value = unsafe { &*value.cast::<Stored>() };
    value.memory()
}

/// `COPY`: a deep copy, or NULL (Redis answers "module key failed to copy") for a filter
/// over `amq.max-filter-bytes` (one made before the limit was lowered) on a primary.
unsafe extern "C" fn copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: as in `rdb_save`.
    let value = unsafe { &*value.cast::<Stored>() };
    if value.limited_bytes() > crate::ops::limit() {
        // SAFETY: the API table is filled before any callback runs; a thread-safe context
        // without a blocked client is the documented way to a context outside a command's,
        // and it is freed right after its flags are read.
        let refused = unsafe {
            match (
                raw::RedisModule_GetThreadSafeContext,
                raw::RedisModule_FreeThreadSafeContext,
            ) {
                (Some(get), Some(free)) => {
                    let ctx = get(ptr::null_mut());
                    let why = over_limit(&Context::new(ctx), value);
                    free(ctx);
                    why
                }
                _ => None,
            }
        };
        if let Some(why) = refused {
            Context::dummy().log_warning(&format!("amq: COPY refused: {why}"));
            return ptr::null_mut();
        }
    }
    Box::into_raw(Box::new(value.clone())).cast::<c_void>()
}

/// Frees a value.
unsafe extern "C" fn free(value: *mut c_void) {
    if !value.is_null() {
        // SAFETY: the pointer came from `Box::<Stored>::into_raw` and Redis frees it once.
        drop(unsafe { Box::from_raw(value.cast::<Stored>()) });
    }
}

/// The key specs of a command.
fn key_specs(keys: Keys) -> Vec<KeySpec> {
    let spec = |flags, index, last| {
        KeySpec::new(
            None,
            flags,
            BeginSearch::new_index(index),
            FindKeys::new_range(last, 1, 0),
        )
    };
    match keys {
        Keys::None => Vec::new(),
        Keys::First(flags) => vec![spec(F::from_bits_truncate(flags), 1, 0)],
        Keys::DestinationAndSources => {
            vec![
                spec(F::READ_WRITE | F::INSERT, 1, 0),
                spec(F::READ_ONLY | F::ACCESS, 2, -1),
            ]
        }
    }
}

/// The version of `RedisModuleCommandInfo` this build fills (version 1, Redis 7.0's).
static INFO_VERSION: raw::RedisModuleCommandInfoVersion = raw::RedisModuleCommandInfoVersion {
    version: 1,
    sizeof_historyentry: std::mem::size_of::<raw::RedisModuleCommandHistoryEntry>(),
    sizeof_keyspec: std::mem::size_of::<raw::RedisModuleCommandKeySpec>(),
    sizeof_arg: std::mem::size_of::<raw::RedisModuleCommandArg>(),
};

/// Sets the arity and key specs of every command of [`TABLE`] (after the commands were
/// created), so `COMMAND INFO` shows them and a cluster routes by them.
///
/// # Errors
/// The name of the first command Redis does not know or refuses the information of.
pub fn set_command_info(ctx: &Context) -> Result<(), String> {
    // SAFETY: the API table is filled by `RedisModule_Init`; the pointers are read by value.
    let (Some(get), Some(set)) = (unsafe { raw::RedisModule_GetCommand }, unsafe {
        raw::RedisModule_SetCommandInfo
    }) else {
        return Err("this server has no RedisModule_SetCommandInfo (Redis 7.0 or later)".into());
    };
    for &CommandInfo { name, arity, keys } in TABLE {
        let cname = CString::new(name).map_err(|_| name.to_string())?;
        // SAFETY: `ctx` is the module's context during OnLoad; the name is a C string.
        let command = unsafe { get(ctx.get_raw(), cname.as_ptr()) };
        if command.is_null() {
            return Err(format!("{name} was not created"));
        }
        let mut specs = get_redis_key_spec(key_specs(keys));
        let info = raw::RedisModuleCommandInfo {
            version: &INFO_VERSION,
            summary: ptr::null(),
            complexity: ptr::null(),
            since: ptr::null(),
            history: ptr::null_mut(),
            tips: ptr::null(),
            arity,
            key_specs: if matches!(keys, Keys::None) {
                ptr::null_mut()
            } else {
                specs.as_mut_ptr()
            },
            args: ptr::null_mut(),
        };
        // SAFETY: `info` and the zero-terminated `specs` (no notes or keywords, so no
        // strings to free) outlive the call, which copies what it keeps.
        if unsafe { set(command, &info) } != raw::REDISMODULE_OK as c_int {
            return Err(format!("Redis refused the command information of {name}"));
        }
    }
    Ok(())
}
