//! Debug drawing with Bevy's gizmos (feature `gizmos`): navkit's [`debug_draw`] layers of the
//! scene's navmesh (polygons by area, outlines, off-mesh links; tile bounds), the agents (with
//! their corners and velocities) and the obstacles, each toggled in [`NavGizmos`].

use bevy::color::Color;
use bevy::ecs::resource::Resource;
use bevy::ecs::system::{Local, Res};
use bevy::gizmos::gizmos::Gizmos;
use glam::Vec3;
use navkit::NavMesh;
use navkit::debug_draw::navmesh::NavMeshDrawOptions;
use navkit::debug_draw::{self, DebugDraw, DebugDrawSink, PrimitiveKind, Style};

#[cfg(test)]
use crate::crowd::CORRIDORS_LAYER;
use crate::crowd::SceneCrowd;
use crate::obstacle::Obstacles;
use crate::scene_navmesh::SceneNavMesh;

/// Which layers the plugin draws with gizmos each frame (all by default). Remove or change
/// this resource to hide them.
#[derive(Resource, Clone, Debug, PartialEq, Eq)]
pub struct NavGizmos {
    /// The navmesh: polygons by area (their triangles' edges), outlines and off-mesh links.
    pub navmesh: bool,
    /// The tiles' bounds.
    pub tiles: bool,
    /// The agents: their cylinders, corridors (the polygons of their paths), corners and
    /// velocities.
    pub agents: bool,
    /// The obstacles' shapes (as carved: widened by the agent radius is not shown).
    pub obstacles: bool,
}

impl Default for NavGizmos {
    fn default() -> Self {
        NavGizmos {
            navmesh: true,
            tiles: true,
            agents: true,
            obstacles: true,
        }
    }
}

impl NavGizmos {
    /// True if the layer named `name` (a navkit `*_LAYER` name) is shown.
    pub fn shows(&self, name: &str) -> bool {
        if name == debug_draw::navmesh::TILES_LAYER {
            self.tiles
        } else if name.starts_with("navmesh.") {
            self.navmesh
                && name != debug_draw::navmesh::VERTICES_LAYER
                && name != debug_draw::navmesh::BV_TREE_LAYER
                && name != debug_draw::navmesh::DETAIL_LAYER
        } else if name.starts_with("crowd.") {
            self.agents
        } else if name == debug_draw::geometry::OBSTACLES_LAYER {
            self.obstacles
        } else {
            false
        }
    }
}

/// The navmesh's picture the gizmos draw from: RecastDemo's navmesh view (polygons by area,
/// detail outlines, off-mesh links) with the tile bounds, without the vertices.
pub fn navmesh_picture(nav: &NavMesh) -> DebugDraw {
    let options = NavMeshDrawOptions {
        tiles: true,
        vertices: false,
        ..NavMeshDrawOptions::default()
    };
    debug_draw::navmesh::navmesh(nav, &options)
}

/// A line segment to draw.
pub type GizmoLine = (Vec3, Vec3, Color);

/// The line segments that draw `picture`'s layers that `shows` keeps: lines as they are,
/// triangles by their edges, points as small crosses (gizmos draw lines only).
pub fn gizmo_lines(picture: &DebugDraw, shows: impl Fn(&str) -> bool) -> Vec<GizmoLine> {
    let mut sink = LineSink {
        lines: Vec::new(),
        kind: PrimitiveKind::Lines,
        size: 1.0,
        run: Vec::new(),
    };
    picture.feed_filtered(&mut sink, shows);
    sink.lines
}

/// Turns navkit's batches into line segments.
struct LineSink {
    lines: Vec<GizmoLine>,
    kind: PrimitiveKind,
    size: f32,
    run: Vec<(Vec3, Color)>,
}

impl DebugDrawSink for LineSink {
    fn begin(&mut self, _layer: &str, kind: PrimitiveKind, style: Style) {
        self.kind = kind;
        self.size = style.size;
        self.run.clear();
    }

    fn vertex(&mut self, pos: Vec3, color: debug_draw::Color) {
        let [r, g, b, a] = color.to_array();
        self.run.push((pos, Color::srgba_u8(r, g, b, a)));
        let per = match self.kind {
            PrimitiveKind::Points => 1,
            PrimitiveKind::Lines => 2,
            PrimitiveKind::Triangles => 3,
        };
        if self.run.len() < per {
            return;
        }
        match self.run[..] {
            [(p, c)] => {
                let d = 0.05 * self.size.max(1.0);
                self.lines.push((p - Vec3::X * d, p + Vec3::X * d, c));
                self.lines.push((p - Vec3::Z * d, p + Vec3::Z * d, c));
            }
            [(a, c), (b, _)] => self.lines.push((a, b, c)),
            [(a, c), (b, _), (d, _)] => {
                self.lines.extend([(a, b, c), (b, d, c), (d, a, c)]);
            }
            _ => {}
        }
        self.run.clear();
    }

    fn end(&mut self) {
        self.run.clear();
    }
}

/// Draws the layers [`NavGizmos`] shows (nothing without the resource, or without Bevy's
/// `GizmoPlugin`, which `DefaultPlugins` has). The navmesh's picture is made once per navmesh
/// generation.
pub(crate) fn draw_gizmos(
    gizmos: Option<Gizmos>,
    shown: Option<Res<NavGizmos>>,
    navmesh: Res<SceneNavMesh>,
    crowd: Res<SceneCrowd>,
    obstacles: Res<Obstacles>,
    mut cached: Local<Option<(u64, DebugDraw)>>,
) {
    let (Some(mut gizmos), Some(shown)) = (gizmos, shown) else {
        return;
    };
    if cached.as_ref().map(|(g, _)| *g) != Some(navmesh.generation()) {
        let picture = navmesh
            .get()
            .map_or_else(DebugDraw::default, |nav| navmesh_picture(nav));
        *cached = Some((navmesh.generation(), picture));
    }
    if let Some((_, picture)) = cached.as_ref() {
        for (a, b, c) in gizmo_lines(picture, |name| shown.shows(name)) {
            gizmos.line(a, b, c);
        }
    }
    let mut picture = DebugDraw::default();
    if shown.agents {
        let states = crowd.agent_states();
        picture.push(debug_draw::agents::agents(&states));
        picture.push(debug_draw::agents::corners(&states));
        picture.push(debug_draw::agents::velocities(&states));
        if let Some(corridors) = crowd.corridors_layer() {
            picture.push(corridors);
        }
    }
    if shown.obstacles {
        let mut layer = debug_draw::Layer::new(debug_draw::geometry::OBSTACLES_LAYER);
        for shape in obstacles.shapes.values() {
            let color = debug_draw::Color::rgba(255, 192, 0, 255);
            debug_draw::geometry::obstacle_shape(&mut layer, shape, color);
        }
        picture.push(layer);
    }
    for (a, b, c) in gizmo_lines(&picture, |name| shown.shows(name)) {
        gizmos.line(a, b, c);
    }
}

#[cfg(test)]
mod tests {
    use bevy::asset::{AssetPlugin, RenderAssetUsages};
    use bevy::mesh::{Indices, Mesh, Mesh3d, PrimitiveTopology};
    use bevy::prelude::*;

    use super::*;
    use crate::{AgentTarget, NavAgent, NavMeshBuilt, NavMeshSource, NavkitPlugin};

    #[test]
    fn an_agents_corridor_is_drawn_from_the_polygons_of_its_path() {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin));
        app.add_plugins(NavkitPlugin);
        app.init_asset::<Mesh>();
        let floor = Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::all())
            .with_inserted_attribute(
                Mesh::ATTRIBUTE_POSITION,
                vec![
                    [0.0f32, 0.0, 0.0],
                    [0.0, 0.0, 30.0],
                    [30.0, 0.0, 30.0],
                    [30.0, 0.0, 0.0],
                ],
            )
            .with_inserted_indices(Indices::U32(vec![0, 1, 2, 0, 2, 3]));
        let h = app.world_mut().resource_mut::<Assets<Mesh>>().add(floor);
        app.world_mut()
            .spawn((Mesh3d(h), Transform::default(), NavMeshSource::default()));
        for _ in 0..12_000 {
            app.update();
            if !app.world().resource::<Messages<NavMeshBuilt>>().is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let crowd = app.world().resource::<SceneCrowd>();
        assert!(
            crowd.corridors_layer().is_none(),
            "no crowd before the first step"
        );
        app.world_mut().spawn((
            NavAgent::default(),
            Transform::from_xyz(2.0, 0.0, 2.0),
            AgentTarget(Vec3::new(28.0, 0.0, 28.0)),
        ));
        for _ in 0..10 {
            app.update();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let crowd = app.world().resource::<SceneCrowd>();
        let layer = crowd.corridors_layer().expect("a crowd");
        let triangles = layer.count(PrimitiveKind::Triangles);
        // A corridor of at least the two polygons under start and goal (tiles of 9.6 m).
        assert!(triangles >= 2, "{triangles}");
        let shown = NavGizmos::default();
        assert!(shown.shows(CORRIDORS_LAYER));
        let hidden = NavGizmos {
            agents: false,
            ..NavGizmos::default()
        };
        assert!(!hidden.shows(CORRIDORS_LAYER));
    }
}
