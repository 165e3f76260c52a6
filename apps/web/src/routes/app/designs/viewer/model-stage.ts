import {
  AmbientLight,
  BufferAttribute,
  BufferGeometry,
  Color,
  DirectionalLight,
  DoubleSide,
  Group,
  HemisphereLight,
  LineBasicMaterial,
  LineSegments,
  Mesh,
  MeshBasicMaterial,
  MeshStandardMaterial,
  PerspectiveCamera,
  PlaneGeometry,
  Points,
  PointsMaterial,
  Scene,
  Sphere,
  Vector3,
  WebGLRenderer,
} from 'three';
import type { Material, Object3D } from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { toCreasedNormals } from 'three/examples/jsm/utils/BufferGeometryUtils.js';
import { BUILD_VOLUME_MM } from './build-volume.ts';
import type { ViewerMesh } from './viewer-mesh.ts';

/** The three HTML labels that follow the bounding box's edges on screen. */
export interface DimensionLabels {
  x: HTMLElement;
  y: HTMLElement;
  z: HTMLElement;
}

/** Above this many triangles, creased normals cost too much time; flat shading looks fine instead. */
const CREASE_LIMIT_TRIANGLES = 200_000;
const CREASE_ANGLE = Math.PI / 6;
const HIGHLIGHT_COLOUR = 0xef4444;
const FIELD_OF_VIEW = 40;
/** The camera looks from front-right, a little above: the view a maker has of a printer bed. */
const VIEW_DIRECTION = new Vector3(0.85, -1.45, 1.05).normalize();

/**
 * The three.js side of the viewer: one renderer per viewer, drawing only when something changed
 * (orbit, resize, new model) so an idle page costs no CPU. Units are millimetres, Z up like slicers.
 */
export class ModelStage {
  private readonly renderer: WebGLRenderer;
  private readonly scene = new Scene();
  private readonly camera = new PerspectiveCamera(FIELD_OF_VIEW, 1, 0.1, 5000);
  private readonly controls: OrbitControls;
  private readonly resizeObserver: ResizeObserver;
  /** Holds the model and its overlays, moved so the model stands centred on the bed. */
  private readonly modelGroup = new Group();
  private model: Mesh | null = null;
  private highlight: Object3D[] = [];
  private boxLines: LineSegments | null = null;
  private readonly focus = new Sphere(new Vector3(0, 0, 10), 30);
  private readonly labelAnchors = { x: new Vector3(), y: new Vector3(), z: new Vector3() };
  private frameRequest = 0;
  private readonly onContextLost: (event: Event) => void;

  private readonly container: HTMLElement;
  private readonly labels: DimensionLabels;

  constructor(container: HTMLElement, labels: DimensionLabels, contextLost: () => void) {
    this.container = container;
    this.labels = labels;
    // Throws when WebGL is unavailable; the viewer's error boundary turns that into a message.
    this.renderer = new WebGLRenderer({ antialias: true, alpha: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    const canvas = this.renderer.domElement;
    canvas.dataset.testid = 'viewer-canvas';
    canvas.setAttribute('role', 'img');
    canvas.setAttribute(
      'aria-label',
      '3D preview of the model. Drag to orbit, scroll to zoom, right-drag to pan.',
    );
    Object.assign(canvas.style, {
      display: 'block',
      width: '100%',
      height: '100%',
      touchAction: 'none',
      outline: 'none',
    });
    container.prepend(canvas);
    this.onContextLost = (event) => {
      event.preventDefault();
      contextLost();
    };
    canvas.addEventListener('webglcontextlost', this.onContextLost);

    this.camera.up.set(0, 0, 1);
    this.scene.add(this.camera);
    this.addLights();
    this.scene.add(buildBed());
    this.scene.add(this.modelGroup);

    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.screenSpacePanning = true;
    this.controls.addEventListener('change', () => this.requestRender());

    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(container);
    this.resize();
    this.resetView();
  }

  setModel(mesh: ViewerMesh, colour: string): void {
    this.clearModel();
    const indexed = new BufferGeometry();
    indexed.setAttribute('position', new BufferAttribute(mesh.positions, 3));
    indexed.setIndex(new BufferAttribute(mesh.indices, 1));
    const triangles = mesh.indices.length / 3;
    let geometry: BufferGeometry;
    if (triangles <= CREASE_LIMIT_TRIANGLES) {
      // Smooth curved surfaces, crisp edges: mechanical parts and organic sculpts both read well.
      geometry = toCreasedNormals(indexed, CREASE_ANGLE);
      indexed.dispose();
    } else {
      geometry = indexed;
      geometry.computeVertexNormals();
    }
    geometry.computeBoundingBox();
    const box = geometry.boundingBox;
    if (!box) return;
    const material = new MeshStandardMaterial({
      color: new Color(colour),
      roughness: 0.55,
      metalness: 0.05,
      flatShading: triangles > CREASE_LIMIT_TRIANGLES,
      side: DoubleSide,
    });
    this.model = new Mesh(geometry, material);
    this.modelGroup.add(this.model);

    // Centre the model on the bed and stand it on the bed's surface (Z = 0).
    const centre = box.getCenter(new Vector3());
    this.modelGroup.position.set(-centre.x, -centre.y, -box.min.z);
    const size = box.getSize(new Vector3());
    this.boxLines = buildBoxLines(box.min, box.max);
    this.modelGroup.add(this.boxLines);

    // Each label sits just outside the middle of its edge, so the three never cover each other.
    const half = size.clone().multiplyScalar(0.5);
    const pad = Math.max(size.x, size.y, size.z) * 0.08;
    this.labelAnchors.x.set(0, -half.y - pad, 0);
    this.labelAnchors.y.set(half.x + pad, 0, 0);
    this.labelAnchors.z.set(half.x + pad * 0.7, -half.y - pad * 0.7, size.z / 2);
    this.focus.center.set(0, 0, size.z / 2);
    this.focus.radius = Math.max(size.length() / 2, 1);
    this.resetView();
  }

  setColour(colour: string): void {
    if (this.model?.material instanceof MeshStandardMaterial) {
      this.model.material.color.set(colour);
      this.requestRender();
    }
  }

  /** Draws the given triangles (positions in model space, 9 numbers each) in red; null clears. */
  setHighlight(positions: Float32Array | null): void {
    for (const object of this.highlight) {
      this.modelGroup.remove(object);
      disposeObject(object);
    }
    this.highlight = [];
    if (positions && positions.length > 0) {
      const geometry = new BufferGeometry();
      geometry.setAttribute('position', new BufferAttribute(positions, 3));
      const faces = new Mesh(
        geometry,
        // Drawn slightly in front of the model's own faces so the red is never z-fighting.
        new MeshBasicMaterial({
          color: HIGHLIGHT_COLOUR,
          side: DoubleSide,
          polygonOffset: true,
          polygonOffsetFactor: -2,
          polygonOffsetUnits: -4,
        }),
      );
      // Points as well: degenerate or tiny problem triangles would otherwise be invisible.
      const dots = new Points(
        geometry.clone(),
        new PointsMaterial({ color: HIGHLIGHT_COLOUR, size: 5, sizeAttenuation: false, depthTest: false }),
      );
      this.highlight = [faces, dots];
      for (const object of this.highlight) this.modelGroup.add(object);
    }
    if (this.model?.material instanceof MeshStandardMaterial) {
      // The model steps back a little so the red areas stand out.
      this.model.material.transparent = this.highlight.length > 0;
      this.model.material.opacity = this.highlight.length > 0 ? 0.55 : 1;
      this.model.material.needsUpdate = true;
    }
    this.requestRender();
  }

  resetView(): void {
    const { center, radius } = this.focus;
    const aspect = Math.max(this.camera.aspect, 0.1);
    const halfFov = (FIELD_OF_VIEW * Math.PI) / 360;
    // Far enough that the model's bounding sphere fits both vertically and horizontally.
    const distance = (radius / Math.sin(halfFov)) * 1.1 * Math.max(1, 1 / aspect);
    this.camera.position.copy(center).addScaledVector(VIEW_DIRECTION, distance);
    this.camera.near = Math.max(distance / 1000, 0.01);
    this.camera.far = distance * 20 + 2000;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(center);
    this.controls.minDistance = radius * 0.3;
    this.controls.maxDistance = distance * 10 + 1000;
    this.controls.update();
    this.requestRender();
  }

  dispose(): void {
    this.resizeObserver.disconnect();
    this.controls.dispose();
    this.clearModel();
    cancelAnimationFrame(this.frameRequest);
    this.scene.traverse(disposeObject);
    const canvas = this.renderer.domElement;
    canvas.removeEventListener('webglcontextlost', this.onContextLost);
    this.renderer.dispose();
    // Browsers allow only a few live WebGL contexts; give this one back now, not at GC time.
    this.renderer.forceContextLoss();
    canvas.remove();
  }

  private clearModel(): void {
    this.setHighlight(null);
    for (const object of [this.model, this.boxLines]) {
      if (object) {
        this.modelGroup.remove(object);
        disposeObject(object);
      }
    }
    this.model = null;
    this.boxLines = null;
  }

  private addLights(): void {
    this.scene.add(new HemisphereLight(0xffffff, 0x8888a0, 1.4));
    this.scene.add(new AmbientLight(0xffffff, 0.25));
    // The key light rides with the camera so the side the seller looks at is always lit.
    const key = new DirectionalLight(0xffffff, 1.8);
    key.position.set(1, 1.5, 2);
    this.camera.add(key);
    const rim = new DirectionalLight(0xffffff, 0.6);
    rim.position.set(-200, 300, 400);
    this.scene.add(rim);
  }

  private resize(): void {
    const width = Math.max(this.container.clientWidth, 1);
    const height = Math.max(this.container.clientHeight, 1);
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  private requestRender(): void {
    if (this.frameRequest) return;
    this.frameRequest = requestAnimationFrame(() => {
      this.frameRequest = 0;
      this.renderer.render(this.scene, this.camera);
      this.placeLabels();
    });
  }

  private placeLabels(): void {
    const width = this.container.clientWidth;
    const height = this.container.clientHeight;
    for (const axis of ['x', 'y', 'z'] as const) {
      const label = this.labels[axis];
      const point = this.labelAnchors[axis].clone().project(this.camera);
      const visible =
        this.model !== null && point.z < 1 && Math.abs(point.x) <= 1.05 && Math.abs(point.y) <= 1.05;
      label.style.visibility = visible ? 'visible' : 'hidden';
      if (visible) {
        label.style.transform = `translate(${((point.x + 1) / 2) * width}px, ${((1 - point.y) / 2) * height}px) translate(-50%, -50%)`;
      }
    }
  }
}

function disposeObject(object: Object3D): void {
  if (object instanceof Mesh || object instanceof LineSegments || object instanceof Points) {
    (object.geometry as BufferGeometry).dispose();
    const materials: Material[] = Array.isArray(object.material) ? object.material : [object.material];
    for (const material of materials) material.dispose();
  }
}

/** The printer's bed: a plate with a 10 mm grid, stronger lines every 50 mm, and its outline. */
function buildBed(): Group {
  const [width, depth] = BUILD_VOLUME_MM;
  const bed = new Group();
  const plate = new Mesh(
    new PlaneGeometry(width, depth),
    new MeshBasicMaterial({
      color: 0x64748b,
      transparent: true,
      opacity: 0.12,
      side: DoubleSide,
      depthWrite: false,
    }),
  );
  plate.position.z = -0.05;
  bed.add(plate);
  const minor: number[] = [];
  const major: number[] = [];
  const halfW = width / 2;
  const halfD = depth / 2;
  for (let x = -halfW; x <= halfW + 1e-6; x += 10) {
    const onMajor = Math.round(x + halfW) % 50 === 0;
    (onMajor ? major : minor).push(x, -halfD, 0, x, halfD, 0);
  }
  for (let y = -halfD; y <= halfD + 1e-6; y += 10) {
    const onMajor = Math.round(y + halfD) % 50 === 0;
    (onMajor ? major : minor).push(-halfW, y, 0, halfW, y, 0);
  }
  major.push(-halfW, halfD, 0, halfW, halfD, 0, halfW, -halfD, 0, halfW, halfD, 0);
  bed.add(lines(minor, 0x94a3b8, 0.25));
  bed.add(lines(major, 0x94a3b8, 0.55));
  return bed;
}

function lines(points: number[], colour: number, opacity: number): LineSegments {
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(new Float32Array(points), 3));
  return new LineSegments(
    geometry,
    new LineBasicMaterial({ color: colour, transparent: true, opacity, depthWrite: false }),
  );
}

/** The bounding box as thin lines, so the dimension labels visibly belong to its edges. */
function buildBoxLines(min: Vector3, max: Vector3): LineSegments {
  const c = [
    [min.x, min.y, min.z],
    [max.x, min.y, min.z],
    [max.x, max.y, min.z],
    [min.x, max.y, min.z],
    [min.x, min.y, max.z],
    [max.x, min.y, max.z],
    [max.x, max.y, max.z],
    [min.x, max.y, max.z],
  ] as const;
  const edges = [
    [0, 1],
    [1, 2],
    [2, 3],
    [3, 0],
    [4, 5],
    [5, 6],
    [6, 7],
    [7, 4],
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
  ] as const;
  const points = edges.flatMap(([a, b]) => [...c[a], ...c[b]]);
  return lines(points, 0x38bdf8, 0.6);
}
