//! The commands, one module per family, and what `COMMAND INFO` says of each: its arity
//! (the argument count, command name included; negative: at least that many) and where its
//! keys are, so a cluster routes it and refuses keys of different slots.

pub mod amq;
pub mod bf;
pub mod cf;
pub mod chunks;
pub mod exists;
mod spec;

use redis_module::raw;

/// Where a command's keys are.
#[derive(Debug, Clone, Copy)]
pub enum Keys {
    /// No key (`AMQ.PLAN`).
    None,
    /// One key, the first argument, with these key-spec flags (`REDISMODULE_CMD_KEY_*`).
    First(u32),
    /// A destination key written (the first argument) and source keys read (the rest).
    DestinationAndSources,
}

/// A command's name, arity and keys.
#[derive(Debug, Clone, Copy)]
pub struct CommandInfo {
    /// The name, lower case.
    pub name: &'static str,
    /// The arity as Redis counts it.
    pub arity: i32,
    /// Where its keys are.
    pub keys: Keys,
}

const READ: u32 = raw::REDISMODULE_CMD_KEY_RO | raw::REDISMODULE_CMD_KEY_ACCESS;
const INSERT: u32 = raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_INSERT;
const DELETE: u32 = raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_DELETE;
const META: u32 = raw::REDISMODULE_CMD_KEY_RO;
const UPDATE: u32 = raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_UPDATE;
const OVERWRITE: u32 = raw::REDISMODULE_CMD_KEY_OW | raw::REDISMODULE_CMD_KEY_UPDATE;

const fn one(name: &'static str, arity: i32, flags: u32) -> CommandInfo {
    CommandInfo {
        name,
        arity,
        keys: Keys::First(flags),
    }
}

/// Every command of the module (RedisBloom's arities for `BF.*` and `CF.*`).
pub const TABLE: &[CommandInfo] = &[
    one("bf.reserve", -4, INSERT),
    one("bf.add", 3, INSERT),
    one("bf.madd", -3, INSERT),
    one("bf.insert", -4, INSERT),
    one("bf.exists", 3, READ),
    one("bf.mexists", -3, READ),
    one("bf.info", -2, META),
    one("bf.card", 2, META),
    one("bf.scandump", 3, READ),
    one("bf.loadchunk", 4, INSERT),
    one("cf.reserve", -3, INSERT),
    one("cf.add", 3, INSERT),
    one("cf.addnx", 3, INSERT),
    one("cf.insert", -4, INSERT),
    one("cf.insertnx", -4, INSERT),
    one("cf.exists", 3, READ),
    one("cf.mexists", -3, READ),
    one("cf.count", 3, READ),
    one("cf.del", 3, DELETE),
    one("cf.info", 2, META),
    one("cf.scandump", 3, READ),
    one("cf.loadchunk", 4, INSERT),
    CommandInfo {
        name: "amq.plan",
        arity: -2,
        keys: Keys::None,
    },
    one("amq.reserve", -3, INSERT),
    one("amq.add", -3, INSERT),
    one("amq.addat", -4, INSERT),
    one("amq.exists", -3, READ),
    one("amq.del", -3, DELETE),
    one("amq.delat", 4, DELETE),
    one("amq.close", 2, UPDATE),
    CommandInfo {
        name: "amq.merge",
        arity: -3,
        keys: Keys::DestinationAndSources,
    },
    one("amq.dump", 2, READ),
    one("amq.restore", -3, OVERWRITE),
    one("amq.info", 2, META),
    one("amq.scandump", 3, READ),
    one("amq.loadchunk", 4, INSERT),
];
