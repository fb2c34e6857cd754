//! Obstacles: their refs, shapes and states, and the [`TileCache`] methods that add, remove
//! and list them.

use glam::Vec3;

use super::*;
use crate::ffi::tilecache::{
    OBSTACLE_EMPTY, OBSTACLE_PROCESSED, OBSTACLE_PROCESSING, OBSTACLE_REMOVING, RawObstacle,
    RawShape,
};
use crate::status::Status;
use crate::{Error, Result};

/// An obstacle's reference: its slot and a salt, so that a ref to a removed obstacle is stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct ObstacleRef(pub u32);

/// The shape of an obstacle. In JSON (scenario files) it is tagged by `kind`:
/// `{"kind": "cylinder", "pos": [x, y, z], "radius": r, "height": h}`,
/// `{"kind": "box", "bmin": [..], "bmax": [..]}` or
/// `{"kind": "oriented_box", "center": [..], "half_extents": [..], "y_angle": a}`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)
)]
pub enum ObstacleShape {
    /// An upright cylinder standing on `pos`.
    Cylinder {
        /// Centre of the base.
        pos: Vec3,
        /// Radius.
        radius: f32,
        /// Height.
        height: f32,
    },
    /// An axis-aligned box.
    Box {
        /// Minimum corner.
        bmin: Vec3,
        /// Maximum corner.
        bmax: Vec3,
    },
    /// A box turned about the y axis.
    OrientedBox {
        /// Centre.
        center: Vec3,
        /// Half extents before the rotation.
        half_extents: Vec3,
        /// Rotation about y in radians (as recovered from Detour's stored form, in -pi..=pi).
        y_angle: f32,
    },
}

impl ObstacleShape {
    /// The box Detour uses to find the tiles the obstacle touches (`getObstacleBounds`; an
    /// oriented box is bounded by a square of half side `1.41 * max(half x, half z)`).
    pub fn bounds(&self) -> (Vec3, Vec3) {
        match *self {
            ObstacleShape::Cylinder {
                pos,
                radius,
                height,
            } => (
                Vec3::new(pos.x - radius, pos.y, pos.z - radius),
                Vec3::new(pos.x + radius, pos.y + height, pos.z + radius),
            ),
            ObstacleShape::Box { bmin, bmax } => (bmin, bmax),
            ObstacleShape::OrientedBox {
                center,
                half_extents,
                ..
            } => {
                let r = 1.41 * half_extents.x.max(half_extents.z);
                (
                    Vec3::new(center.x - r, center.y - half_extents.y, center.z - r),
                    Vec3::new(center.x + r, center.y + half_extents.y, center.z + r),
                )
            }
        }
    }

    /// The footprint's outline on the xz-plane at the shape's base height: a 24-gon for a
    /// cylinder, four corners for a box (turned for an oriented box). For drawing.
    pub fn outline(&self) -> Vec<Vec3> {
        match *self {
            ObstacleShape::Cylinder { pos, radius, .. } => (0..24)
                .map(|i| {
                    let a = i as f32 / 24.0 * std::f32::consts::TAU;
                    pos + Vec3::new(a.cos() * radius, 0.0, a.sin() * radius)
                })
                .collect(),
            ObstacleShape::Box { bmin, bmax } => vec![
                Vec3::new(bmin.x, bmin.y, bmin.z),
                Vec3::new(bmax.x, bmin.y, bmin.z),
                Vec3::new(bmax.x, bmin.y, bmax.z),
                Vec3::new(bmin.x, bmin.y, bmax.z),
            ],
            ObstacleShape::OrientedBox {
                center,
                half_extents: h,
                y_angle,
            } => {
                // Detour turns the box by `y_angle` about y: x' = c x + s z, z' = -s x + c z.
                let (sn, cs) = y_angle.sin_cos();
                [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                    .iter()
                    .map(|&(sx, sz)| {
                        let (x, z) = (sx * h.x, sz * h.z);
                        Vec3::new(
                            center.x + cs * x + sn * z,
                            center.y - h.y,
                            center.z - sn * x + cs * z,
                        )
                    })
                    .collect()
            }
        }
    }

    pub(super) fn from_raw(s: &RawShape) -> Self {
        match *s {
            RawShape::Cylinder {
                pos,
                radius,
                height,
            } => ObstacleShape::Cylinder {
                pos: Vec3::from_array(pos),
                radius,
                height,
            },
            RawShape::Box { bmin, bmax } => ObstacleShape::Box {
                bmin: Vec3::from_array(bmin),
                bmax: Vec3::from_array(bmax),
            },
            // rotAux = [cos(a/2) sin(-a/2), cos^2(a/2) - 1/2] = [-sin(a) / 2, cos(a) / 2].
            RawShape::OrientedBox {
                center,
                half_extents,
                rot_aux,
            } => ObstacleShape::OrientedBox {
                center: Vec3::from_array(center),
                half_extents: Vec3::from_array(half_extents),
                y_angle: (-rot_aux[0]).atan2(rot_aux[1]),
            },
        }
    }
}

/// Where an obstacle is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ObstacleState {
    /// Added; some tiles it touches are not rebuilt yet.
    Processing,
    /// Carved into every tile it touches.
    Processed,
    /// Removal requested; some tiles it touched are not rebuilt yet.
    Removing,
}

/// An obstacle, for listing and drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Obstacle {
    /// Its reference.
    pub obstacle: ObstacleRef,
    /// Its shape.
    pub shape: ObstacleShape,
    /// Its state.
    pub state: ObstacleState,
}

impl TileCache {
    /// Checks a new obstacle's box and counts the tile layers it touches: the box must be
    /// finite, near the tile grid (so Detour's float-to-int conversions stay in range), span at
    /// most 8 x 8 tile positions, and touch at most [`MAX_TOUCHED_TILES`] layers; the queued
    /// requests must leave room for its tiles.
    pub(super) fn admit(&self, bmin: Vec3, bmax: Vec3) -> Result<usize> {
        let p = self.params();
        let origin = Vec3::from_array(p.origin);
        let unit = p.cell_size.min(p.cell_height);
        for v in [bmin, bmax] {
            if !v.is_finite() || ((v - origin).abs().max_element() / unit) >= 1.0e8 {
                return Err(Error::InvalidArgument(format!(
                    "obstacle bounds {bmin} .. {bmax} are not finite or too far from the tile \
                     grid at {origin}"
                )));
            }
        }
        if bmin.cmpgt(bmax).any() {
            return Err(Error::InvalidArgument(format!(
                "obstacle bounds {bmin} .. {bmax} have min > max"
            )));
        }
        let (tw, th) = p.tile_world_size();
        let span_x = ((bmax.x - origin.x) / tw).floor() - ((bmin.x - origin.x) / tw).floor() + 1.0;
        let span_z = ((bmax.z - origin.z) / th).floor() - ((bmin.z - origin.z) / th).floor() + 1.0;
        if span_x > 8.0 || span_z > 8.0 {
            return Err(Error::InvalidArgument(format!(
                "obstacle bounds {bmin} .. {bmax} span {span_x} x {span_z} tiles; an obstacle \
                 carves at most {MAX_TOUCHED_TILES} tile layers"
            )));
        }
        let touched =
            self.raw
                .count_tiles_touching(bmin.to_array(), bmax.to_array(), MAX_QUEUED + 1);
        if touched > MAX_TOUCHED_TILES {
            return Err(Error::InvalidArgument(format!(
                "obstacle bounds {bmin} .. {bmax} touch {touched} tile layers; Detour carves at \
                 most {MAX_TOUCHED_TILES} per obstacle"
            )));
        }
        self.room_for(touched)?;
        Ok(touched)
    }

    /// An error unless the queued requests leave room for `touched` more tile rebuilds.
    pub(super) fn room_for(&self, touched: usize) -> Result<()> {
        let (requests, _) = self.raw.pending();
        if requests >= MAX_QUEUED || self.queued_touches + touched > MAX_QUEUED {
            return Err(Error::QueueFull {
                what: "tile cache obstacle request",
                capacity: MAX_QUEUED,
            });
        }
        Ok(())
    }

    pub(super) fn queued(&mut self, r: Result<u32, u32>, touched: usize) -> Result<ObstacleRef> {
        let r = r.map_err(|s| match Status(s) {
            st if st.has(Status::OUT_OF_MEMORY) => Error::PoolFull {
                what: "obstacle",
                capacity: self.params().max_obstacles.max(0) as usize,
            },
            st if st.has(Status::BUFFER_TOO_SMALL) => Error::QueueFull {
                what: "tile cache obstacle request",
                capacity: MAX_QUEUED,
            },
            st => st.error("dtTileCache::addObstacle"),
        })?;
        self.queued_touches += touched;
        Ok(ObstacleRef(r))
    }

    /// Adds an obstacle: an upright cylinder (RecastDemo's obstacle: radius 1, height 2), an
    /// axis-aligned box or a box turned about y. It is carved out at the next
    /// [`TileCache::update`]s; the returned ref removes it ([`TileCache::remove`]).
    ///
    /// The walkable area is not eroded around obstacles: add the agent radius to the shape to
    /// keep agents' centres away. A shape that is not finite, has no size, lies far from the
    /// tile grid or touches too many tiles is [`Error::InvalidArgument`]; a full request queue
    /// is [`Error::QueueFull`] (update, then retry), a full obstacle pool [`Error::PoolFull`].
    pub fn add(&mut self, shape: &ObstacleShape) -> Result<ObstacleRef> {
        match *shape {
            ObstacleShape::Cylinder {
                pos,
                radius,
                height,
            } => self.add_cylinder(pos, radius, height),
            ObstacleShape::Box { bmin, bmax } => self.add_box(bmin, bmax),
            ObstacleShape::OrientedBox {
                center,
                half_extents,
                y_angle,
            } => self.add_oriented_box(center, half_extents, y_angle),
        }
    }

    fn add_cylinder(&mut self, pos: Vec3, radius: f32, height: f32) -> Result<ObstacleRef> {
        if !(radius.is_finite() && radius > 0.0 && height.is_finite() && height > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "cylinder radius {radius} and height {height} must be finite and > 0"
            )));
        }
        let shape = ObstacleShape::Cylinder {
            pos,
            radius,
            height,
        };
        let (bmin, bmax) = shape.bounds();
        let touched = self.admit(bmin, bmax)?;
        let r = self.raw.add_cylinder(pos.to_array(), radius, height);
        self.queued(r, touched)
    }

    fn add_box(&mut self, bmin: Vec3, bmax: Vec3) -> Result<ObstacleRef> {
        let touched = self.admit(bmin, bmax)?;
        let r = self.raw.add_box(bmin.to_array(), bmax.to_array());
        self.queued(r, touched)
    }

    fn add_oriented_box(
        &mut self,
        center: Vec3,
        half_extents: Vec3,
        y_angle: f32,
    ) -> Result<ObstacleRef> {
        if !(half_extents.is_finite()
            && half_extents.cmpgt(Vec3::ZERO).all()
            && y_angle.is_finite())
        {
            return Err(Error::InvalidArgument(format!(
                "oriented box half extents {half_extents} must be finite and > 0, and its angle \
                 {y_angle} finite"
            )));
        }
        let shape = ObstacleShape::OrientedBox {
            center,
            half_extents,
            y_angle,
        };
        let (bmin, bmax) = shape.bounds();
        let touched = self.admit(bmin, bmax)?;
        let r = self
            .raw
            .add_oriented_box(center.to_array(), half_extents.to_array(), y_angle);
        self.queued(r, touched)
    }

    /// Requests the removal of an obstacle; its tiles are rebuilt without it at the next
    /// [`TileCache::update`]s. A stale ref (never issued, already removed, or removal already
    /// requested) is an [`Error::StaleHandle`].
    pub fn remove(&mut self, obstacle: ObstacleRef) -> Result<()> {
        let live = self.raw.obstacle(obstacle.0).is_some_and(|o| {
            (o.state == OBSTACLE_PROCESSING || o.state == OBSTACLE_PROCESSED)
                && !self.removal_requested.contains(&obstacle.0)
        });
        let Some(ob) = self.obstacle(obstacle).filter(|_| live) else {
            return Err(Error::StaleHandle {
                what: "obstacle ref (never issued, removed, or being removed)",
                handle: format!("{:#x}", obstacle.0),
            });
        };
        let (bmin, bmax) = ob.shape.bounds();
        let touched = self
            .raw
            .count_tiles_touching(bmin.to_array(), bmax.to_array(), MAX_QUEUED + 1)
            .min(MAX_TOUCHED_TILES);
        self.room_for(touched)?;
        Status(self.raw.remove_obstacle(obstacle.0)).check("dtTileCache::removeObstacle")?;
        self.removal_requested.insert(obstacle.0);
        self.queued_touches += touched;
        Ok(())
    }

    pub(super) fn to_obstacle(
        r: u32,
        o: &RawObstacle,
        removal_requested: bool,
    ) -> Option<Obstacle> {
        let state = match o.state {
            _ if removal_requested => ObstacleState::Removing,
            OBSTACLE_PROCESSING => ObstacleState::Processing,
            OBSTACLE_PROCESSED => ObstacleState::Processed,
            OBSTACLE_REMOVING => ObstacleState::Removing,
            OBSTACLE_EMPTY => return None,
            _ => return None,
        };
        Some(Obstacle {
            obstacle: ObstacleRef(r),
            shape: ObstacleShape::from_raw(&o.shape),
            state,
        })
    }

    /// How many tile layers an obstacle of this shape would touch (the layers Detour rebuilds
    /// for it), counted up to [`MAX_QUEUED`]` + 1` (also the answer, without a look, for a
    /// shape that is not finite, lies far from the tile grid or spans more than 8 x 8 tile
    /// positions, which [`TileCache::add`] refuses). Detour finishes adding or removing an obstacle
    /// when it has rebuilt the layers it touches: one that touches none stays
    /// [`ObstacleState::Processing`], and after its removal [`ObstacleState::Removing`], and
    /// keeps its slot. Check this before adding one where there may be no layer (over a void,
    /// above the level).
    pub fn layers_touched(&self, shape: &ObstacleShape) -> usize {
        let (bmin, bmax) = shape.bounds();
        let p = self.params();
        let origin = Vec3::from_array(p.origin);
        let (tw, th) = p.tile_world_size();
        let span_x = ((bmax.x - origin.x) / tw).floor() - ((bmin.x - origin.x) / tw).floor() + 1.0;
        let span_z = ((bmax.z - origin.z) / th).floor() - ((bmin.z - origin.z) / th).floor() + 1.0;
        // Detour visits every tile position in the box: only boxes an obstacle may have.
        if !(span_x <= 8.0 && span_z <= 8.0) {
            return MAX_QUEUED + 1;
        }
        self.raw
            .count_tiles_touching(bmin.to_array(), bmax.to_array(), MAX_QUEUED + 1)
    }

    /// The obstacle `obstacle` refers to, if it is live (or being removed).
    pub fn obstacle(&self, obstacle: ObstacleRef) -> Option<Obstacle> {
        let o = self.raw.obstacle(obstacle.0)?;
        Self::to_obstacle(obstacle.0, &o, self.removal_requested.contains(&obstacle.0))
    }

    /// Every obstacle, with its shape and state, in slot order.
    pub fn obstacles(&self) -> Vec<Obstacle> {
        self.raw
            .obstacles()
            .iter()
            .filter_map(|(r, o)| Self::to_obstacle(*r, o, self.removal_requested.contains(r)))
            .collect()
    }
}
