//! Variable types interned for a run: deref instructions walk them by id, so an array index or
//! a struct field is a table lookup rather than a walk of the IR's type tree.

use crate::ir::VarType;

/// The shape of an interned variable type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TyKind {
    /// A vector (its words are the load/store's business).
    Vector,
    /// `len` elements of type `elem`, `elem_words` words each.
    Array {
        /// Number of elements (the index wraps at it; 0 makes indexing a deref misuse).
        len: u32,
        /// Interned element type.
        elem: u32,
        /// Words per element.
        elem_words: u32,
    },
    /// Fields `first..first + count` of [`Types::fields`].
    Struct {
        /// First field.
        first: u32,
        /// Number of fields.
        count: u32,
    },
}

/// Variable types, flattened so deref instructions walk them by id.
#[derive(Clone, Debug, Default)]
pub struct Types {
    /// Interned types by id.
    pub tys: Vec<TyKind>,
    /// Struct fields: (word offset, type id).
    pub fields: Vec<(u32, u32)>,
}

impl Types {
    /// Forgets every type, keeping capacity.
    pub fn clear(&mut self) {
        self.tys.clear();
        self.fields.clear();
    }

    /// Adds `t` and its parts; its id.
    pub fn intern(&mut self, t: &VarType) -> u32 {
        match t {
            VarType::Vector(_) => self.push(TyKind::Vector),
            VarType::Array(elem, len) => {
                let elem_id = self.intern(elem);
                self.push(TyKind::Array {
                    len: *len,
                    elem: elem_id,
                    elem_words: elem.words(),
                })
            }
            VarType::Struct(fields) => {
                let first = self.fields.len();
                self.fields.resize(first + fields.len(), (0, 0));
                let mut offset = 0u32;
                for (k, field) in fields.iter().enumerate() {
                    let id = self.intern(field);
                    self.fields[first + k] = (offset, id);
                    offset = offset.saturating_add(field.words());
                }
                self.push(TyKind::Struct {
                    first: first as u32,
                    count: fields.len() as u32,
                })
            }
        }
    }

    fn push(&mut self, k: TyKind) -> u32 {
        self.tys.push(k);
        (self.tys.len() - 1) as u32
    }

    /// Element `index` (wrapped) of array type `ty`: (word offset, element type).
    #[inline]
    pub fn element(&self, ty: u32, index: u32) -> Option<(u32, u32)> {
        match self.tys.get(ty as usize)? {
            &TyKind::Array {
                len,
                elem,
                elem_words,
            } if len > 0 => Some(((index % len).wrapping_mul(elem_words), elem)),
            _ => None,
        }
    }

    /// Field `field` of struct type `ty`: (word offset, field type).
    #[inline]
    pub fn field(&self, ty: u32, field: u32) -> Option<(u32, u32)> {
        match self.tys.get(ty as usize)? {
            &TyKind::Struct { first, count } if field < count => {
                self.fields.get((first + field) as usize).copied()
            }
            _ => None,
        }
    }

    /// Whether `ty` is an interned type id.
    #[inline]
    pub fn is_type(&self, ty: u32) -> bool {
        (ty as usize) < self.tys.len()
    }
}
