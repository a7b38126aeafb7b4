package org.apache.flink.table.types.logical;
import java.util.*;
import org.apache.flink.table.catalog.ObjectIdentifier;
public final class StructuredType extends UserDefinedType {
  private static final long serialVersionUID = 1L;
  public enum StructuredComparison { EQUALS, FULL, NONE }
  public static final class StructuredAttribute implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final String name; private final LogicalType type; private final String description;
    public StructuredAttribute(String name, LogicalType type) { this.name = name; this.type = type; this.description = null; }
  }
  private final List<StructuredAttribute> attributes; private final boolean isInstantiable;
  private final StructuredComparison comparison; private final StructuredType superType; private final Class<?> implementationClass;
  public StructuredType(boolean nullable, ObjectIdentifier id, Class<?> impl, StructuredType superType, List<StructuredAttribute> attributes) {
    super(nullable, LogicalTypeRoot.STRUCTURED_TYPE, id, true);
    this.attributes = Collections.unmodifiableList(new ArrayList<>(attributes)); isInstantiable = true; comparison = StructuredComparison.NONE;
    this.superType = superType; implementationClass = impl; }
}
