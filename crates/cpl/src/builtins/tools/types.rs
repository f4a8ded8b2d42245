//! Type names in tool definitions: JSON Schema's own, BFCL's Python aliases (spec §2.4) and
//! the Java / JavaScript names that function-calling datasets and SDKs write.

/// A JSON value type, as a bit in a [`super::TypeSet`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum JsonType {
    String = 1,
    Number = 2,
    Integer = 4,
    Boolean = 8,
    Object = 16,
    Array = 32,
    Null = 64,
}

impl JsonType {
    /// The JSON Schema name.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Number => "number",
            Self::Integer => "integer",
            Self::Boolean => "boolean",
            Self::Object => "object",
            Self::Array => "array",
            Self::Null => "null",
        }
    }
}

/// What a type name in a tools file means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TypeName {
    /// One JSON type.
    Json(JsonType),
    /// No constraint (`any`).
    Any,
    /// A name that could mean two things (`Object`: a JSON object, or Java's any-type).
    Ambiguous,
    /// A name we do not know.
    Unknown,
}

/// Resolves a type name. The seven JSON Schema names match exactly; the aliases match
/// case-insensitively, since none of them collides with another meaning. `object` is the one
/// exception: spelled any other way (`Object`) it is Java's root type as much as a JSON
/// object, so it constrains nothing rather than guess.
pub(crate) fn resolve(name: &str) -> TypeName {
    use JsonType as J;
    match name {
        "string" => return TypeName::Json(J::String),
        "number" => return TypeName::Json(J::Number),
        "integer" => return TypeName::Json(J::Integer),
        "boolean" => return TypeName::Json(J::Boolean),
        "object" => return TypeName::Json(J::Object),
        "array" => return TypeName::Json(J::Array),
        "null" => return TypeName::Json(J::Null),
        _ => {}
    }
    // Type names are short; anything long is not one of ours and needs no lower-casing.
    if name.len() > 16 {
        return TypeName::Unknown;
    }
    match name.to_ascii_lowercase().as_str() {
        "string" => TypeName::Json(J::String),
        "boolean" => TypeName::Json(J::Boolean),
        "dict" | "hashmap" | "map" => TypeName::Json(J::Object),
        "array" | "arraylist" | "list" | "tuple" => TypeName::Json(J::Array),
        "integer" | "int" | "long" => TypeName::Json(J::Integer),
        "number" | "float" | "double" => TypeName::Json(J::Number),
        "null" => TypeName::Json(J::Null),
        "any" => TypeName::Any,
        "object" => TypeName::Ambiguous,
        _ => TypeName::Unknown,
    }
}

/// The names [`resolve`] understands, for messages.
pub(crate) const KNOWN_NAMES: &str = "string, number, integer, boolean, object, array, null, or an alias: dict, HashMap, Map, \
     float, double, tuple, list, ArrayList, Array, int, long, Integer, String, Boolean, any";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_bfcl_and_java_aliases() {
        use JsonType as J;
        let cases = [
            ("string", TypeName::Json(J::String)),
            ("String", TypeName::Json(J::String)),
            ("STRING", TypeName::Json(J::String)),
            ("Boolean", TypeName::Json(J::Boolean)),
            ("boolean", TypeName::Json(J::Boolean)),
            ("dict", TypeName::Json(J::Object)),
            ("HashMap", TypeName::Json(J::Object)),
            ("Map", TypeName::Json(J::Object)),
            ("object", TypeName::Json(J::Object)),
            ("ArrayList", TypeName::Json(J::Array)),
            ("Array", TypeName::Json(J::Array)),
            ("List", TypeName::Json(J::Array)),
            ("tuple", TypeName::Json(J::Array)),
            ("long", TypeName::Json(J::Integer)),
            ("int", TypeName::Json(J::Integer)),
            ("Integer", TypeName::Json(J::Integer)),
            ("double", TypeName::Json(J::Number)),
            ("float", TypeName::Json(J::Number)),
            ("Double", TypeName::Json(J::Number)),
            ("number", TypeName::Json(J::Number)),
            ("null", TypeName::Json(J::Null)),
            ("any", TypeName::Any),
            ("Any", TypeName::Any),
            ("Object", TypeName::Ambiguous),
            ("char", TypeName::Unknown),
            ("str", TypeName::Unknown),
            ("", TypeName::Unknown),
            ("a-very-long-type-name-indeed", TypeName::Unknown),
        ];
        for (name, want) in cases {
            assert_eq!(resolve(name), want, "{name}");
        }
    }
}
