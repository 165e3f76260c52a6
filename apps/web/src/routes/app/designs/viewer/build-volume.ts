/**
 * The printer's build volume in mm (X × Y × Z). It mirrors BUILD_VOLUME_MM of packages/mesh, which
 * the web app may not import; "fits the bed" itself comes from the server (Design.fitsBuildVolume).
 */
export const BUILD_VOLUME_MM = [250, 210, 210] as const;
