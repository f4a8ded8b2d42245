//! Deserialisation of open objects.
//!
//! Every Agent Evidence object allows additional properties, so every type carries a
//! flattened `extra` map. With `serde_json`'s `arbitrary_precision` feature (on in this
//! workspace) serde's derived `#[serde(flatten)]` and `#[serde(untagged)]` buffer numbers as
//! private maps, which breaks `f64` fields, untagged number variants and integers beyond
//! `u64` (see the round-trip tests). So serialisation is derived, and deserialisation goes
//! through a [`Map`]: each known key is taken out and read on its own, and what is left
//! becomes `extra`. Numbers are kept as [`serde_json::Number`], exactly as written.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::{Map, Value};

/// Takes `key` out of `map` and reads it as `T`. A missing key reads as `None` for an
/// `Option` and is a "missing field" error otherwise.
pub(crate) fn field<T: DeserializeOwned>(map: &mut Map<String, Value>, key: &'static str) -> Result<T, String> {
    match map.remove(key) {
        Some(v) => T::deserialize(v).map_err(|e| format!("{key}: {e}")),
        None => T::deserialize(Missing(key)).map_err(|e| e.to_string()),
    }
}

/// A deserializer for an absent key: `None` for options, a missing-field error otherwise.
struct Missing(&'static str);

impl<'de> Deserializer<'de> for Missing {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// The JSON key of a field: its name, or the literal given with `as`.
macro_rules! json_key {
    ($field:ident) => {
        stringify!($field)
    };
    ($field:ident, $key:literal) => {
        $key
    };
}

/// Implements `Deserialize` for an open struct whose last field is `extra: Map<String, Value>`.
/// List every other field, with `as "key"` where the JSON key differs from the field name.
macro_rules! open_deserialize {
    ($ty:ident { $($field:ident $(as $key:literal)?),* $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let mut map = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
                Ok(Self {
                    $($field: $crate::de::field(&mut map, $crate::de::json_key!($field $(, $key)?))
                        .map_err(<D::Error as serde::de::Error>::custom)?,)*
                    extra: map,
                })
            }
        }
    };
}

/// Declares an open object: the struct (fields as listed, then `extra`, the unknown fields)
/// with derived `Serialize` and the [`open_deserialize`] impl. A field reads
/// `pub name: Type,` (required), `pub name: opt Type,` (an `Option<Type>`, left out when
/// `None`), with `as "key"` after the name where the JSON key differs.
macro_rules! open_struct {
    ($(#[$meta:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $crate::de::open_struct!(@munch { $(#[$meta])* } $name {} {} $($body)*);
    };
    (@munch $metas:tt $name:ident { $($fields:tt)* } { $($keys:tt)* }
        $(#[$fmeta:meta])* pub $field:ident $(as $key:literal)? : opt $ty:ty, $($rest:tt)*) => {
        $crate::de::open_struct!(@munch $metas $name {
            $($fields)*
            $(#[$fmeta])* #[doc = $crate::de::member_doc!($field $(as $key)?)]
            $(#[serde(rename = $key)])? #[serde(skip_serializing_if = "Option::is_none")]
            pub $field: Option<$ty>,
        } { $($keys)* $field $(as $key)?, } $($rest)*);
    };
    (@munch $metas:tt $name:ident { $($fields:tt)* } { $($keys:tt)* }
        $(#[$fmeta:meta])* pub $field:ident $(as $key:literal)? : $ty:ty, $($rest:tt)*) => {
        $crate::de::open_struct!(@munch $metas $name {
            $($fields)*
            $(#[$fmeta])* #[doc = $crate::de::member_doc!($field $(as $key)?)] $(#[serde(rename = $key)])?
            pub $field: $ty,
        } { $($keys)* $field $(as $key)?, } $($rest)*);
    };
    (@munch { $($metas:tt)* } $name:ident { $($fields:tt)* } { $($keys:tt)* }) => {
        $($metas)*
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        pub struct $name {
            $($fields)*
            /// Unknown fields (product extensions such as `warrant:…` included), kept.
            #[serde(flatten)]
            pub extra: $crate::model::Object,
        }
        $crate::de::open_deserialize!($name { $($keys)* });
    };
}

/// The doc line every schema member gets: its JSON key (after any hand-written doc).
macro_rules! member_doc {
    ($field:ident) => {
        concat!("JSON key `", stringify!($field), "`.")
    };
    ($field:ident as $key:literal) => {
        concat!("JSON key `", $key, "`.")
    };
}

/// A closed string enum: explicit JSON names, `ALL`, `as_str` and `Display`.
macro_rules! closed_enum {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $json:literal,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[doc = concat!("`\"", $json, "\"` in JSON.")] #[serde(rename = $json)] $variant,)*
        }

        impl $name {
            /// Every value, in the schema's order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),*];

            /// The JSON name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $json,)*
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

pub(crate) use {closed_enum, json_key, member_doc, open_deserialize, open_struct};
